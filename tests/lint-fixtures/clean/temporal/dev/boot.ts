// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { client } from '../client';
export const boot = client;
