/** Wire projection of a client (`cli_`, spec 2.3 Client). */
import type { Client } from '../entities';
import Joi from 'joi';
import { at, atOrNull, bool, kind, text, textOrNull } from './schema';
import type { ClientsCreate } from './wire';

/** Client as returned by every `/clients` operation: ObjectBase plus the client fields; `archived_at` null while active. */
export function clientView(client: Client): ClientsCreate {
  return {
    id: client.id,
    object: 'client',
    livemode: client.livemode,
    display_name: client.display_name,
    email: client.email,
    company: client.company,
    country: client.country,
    role: client.role,
    notes: client.notes,
    archived_at: client.archived_at?.toISOString() ?? null,
    created_at: client.created_at.toISOString(),
    updated_at: client.updated_at.toISOString(),
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
