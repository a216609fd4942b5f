// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. api-is-the-top (and runtime-on-views)
import { route } from '../api/routes';
export const usesApi = route;
