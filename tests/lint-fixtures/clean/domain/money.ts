// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
export type Money = { amount: bigint };
export const zero: Money = { amount: 0n };
