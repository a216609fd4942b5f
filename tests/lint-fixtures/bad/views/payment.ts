// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. views-on-entities
import { db } from '../lib/db';
export const paymentView = db;
