// Lint fixture (tests/unit/layers.test.ts): a wrong import the layer rules must report. api-is-the-top: a composition root may import anything but api/
import { route } from '../api/routes';
export const up = route;
