// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. activities-on-runtime (and api-is-the-top)
import { route } from '../../api/routes';
export const activityRoute = route;
