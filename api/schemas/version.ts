/** Request fragment for dated versions (spec 9): the same rule as the `Service-Version` header. */
import Joi from 'joi';
import { isVersionDate, VERSION_PATTERN } from '../../domain/versioning';

/**
 * A calendar date `YYYY-MM-DD` naming a version (`default_version` of `POST /api_keys`): the
 * document states `pattern` + `format: date`; `2026-99-99` and `2026-02-30` are `400 invalid_request`
 * (`param` the field). A date older than the oldest served is accepted and served as that oldest.
 */
export const versionDate = Joi.string()
  .pattern(new RegExp(VERSION_PATTERN))
  .custom((v: string, h) => (isVersionDate(v) ? v : h.error('string.versionDate')))
  .messages({
    'string.pattern.base': '{#label} must be a calendar date YYYY-MM-DD',
    'string.versionDate': '{#label} must be a calendar date YYYY-MM-DD',
  })
  .meta({ format: 'date' });
