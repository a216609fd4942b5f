// Lint fixture (tests/unit/layers.test.ts): the target of a wrong import (activities/pay/uses-intake.ts).
export const receiveChainTransfer = 'receiveChainTransfer';
