// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. intake-is-an-entry
import { receiveChainTransfer } from '../intake/chain';
export const payUsesIntake = receiveChainTransfer;
