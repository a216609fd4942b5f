// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { receiveChainTransfer } from '../../activities/intake/chain';
import { chain } from '../../providers/chain';
export const simulator = [chain, receiveChainTransfer];
