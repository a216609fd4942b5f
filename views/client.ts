/** Wire projection of a client (`cli_`, spec 2.3 Client). */
import type { Client } from '../entities';
import Joi from 'joi';
import { at, atOrNull, bool, kind, text, textOrNull } from './schema';
import type { ClientsCreate } from './wire';

/** Client as returned by every `/clients` operation: ObjectBase plus the client fields; `archived_at` null while active. */
export function clientView(c: Client): ClientsCreate {
  return {
    id: c.id,
    object: 'client',
    livemode: c.livemode,
    display_name: c.display_name,
    email: c.email,
    company: c.company,
    country: c.country,
    role: c.role,
    notes: c.notes,
    archived_at: c.archived_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

/** Response schema of `clientView`. */
export const clientResponse = Joi.object({
  id: text(),
  object: kind('client'),
  livemode: bool(),
  display_name: text(),
  email: textOrNull(),
  company: textOrNull(),
  country: textOrNull(),
  role: textOrNull(),
  notes: textOrNull(),
  archived_at: atOrNull(),
  created_at: at(),
  updated_at: at(),
});
