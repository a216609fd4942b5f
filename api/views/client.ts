/** Wire projection of a client (`cli_`, spec 2.3 Client). */
import type { Client } from '../../entities';

/** Client as returned by every `/clients` operation: ObjectBase plus the client fields; `archived_at` null while active. */
export function clientView(c: Client): Record<string, unknown> {
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
