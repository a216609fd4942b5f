// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report.
export const a = 'a';
