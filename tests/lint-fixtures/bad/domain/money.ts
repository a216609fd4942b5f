// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. domain-is-pure
import { db } from '../lib/db';
export const money = db;
