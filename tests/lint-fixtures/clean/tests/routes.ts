// Lint fixture (tests/unit/layers.test.ts): every import here follows the layer rules.
import { route } from '../api/routes';
import { boot } from '../temporal/dev/boot';
export const routeUnderTest = [route, boot];
