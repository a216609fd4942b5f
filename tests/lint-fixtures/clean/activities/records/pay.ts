// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules. (shared records import no area)
import { emit } from '../../lib/outbox';
export const payEvent = emit;
