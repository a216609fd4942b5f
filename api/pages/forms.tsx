/**
 * Form parts shared by the pages (issue 22): labelled inputs and selects whose error, when the
 * command refused the field (the spec's `param`), is rendered next to it and tied to it
 * (`aria-invalid`, `aria-describedby`); and the conversion of a posted form into the JSON body the
 * public route's joi schema validates (empty fields are absent, as in a JSON request).
 */
import type { ComponentChildren } from 'preact';
import { isDomainError } from '../../domain/errors';
import { FieldError } from './layout';

/** Values typed and errors per field of a form being re-rendered after a refusal. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  /** An error that names no field (e.g. `409 payment_link_not_payable`). */
  formError?: string;
}

/** An empty FormState. */
export const emptyForm = (): FormState => ({ values: {}, errors: {} });

/** The string fields of a posted urlencoded body (`ctx.request.body`), trimmed, empty ones dropped; repeated keys keep the first. */
export function formFields(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === 'string' && s.trim() !== '') out[k] = s.trim();
  }
  return out;
}

/**
 * The FormState of a refused submission: a DomainError with `param` lands on that field (its first
 * path segment, mapped through `paramToField` when the command names it differently), otherwise on
 * the form. Rethrows anything that is not a 4xx DomainError (404 included: the page's 404).
 */
export function refusal(e: unknown, values: Record<string, string>, paramToField: Record<string, string> = {}): FormState & { status: number } {
  if (!isDomainError(e) || e.status >= 500 || e.type === 'not_found' && !e.param || e.type === 'rate_limit_error') throw e;
  const param = e.param?.split('.')[0];
  const field = param ? paramToField[param] ?? param : undefined;
  return field ? { values, errors: { [field]: e.message }, status: e.status } : { values, errors: {}, formError: e.message, status: e.status };
}

interface FieldProps { name: string; label: string; form: FormState; hint?: string; idPrefix?: string }

function describedBy(id: string, hint: string | undefined, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids || undefined;
}

/** A labelled text (or email) input. */
export function TextField(p: FieldProps & { type?: 'text' | 'email'; autocomplete?: string; required?: boolean; inputmode?: string; value?: string }) {
  const id = `${p.idPrefix ?? 'f'}-${p.name}`;
  const error = p.form.errors[p.name];
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input id={id} name={p.name} type={(p.type ?? 'text') as 'text'} value={p.form.values[p.name] ?? p.value ?? ''} autocomplete={p.autocomplete ?? 'off'}
        required={p.required} inputMode={p.inputmode as 'text' | undefined} spellcheck={false}
        aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy(id, p.hint, error)} />
      {p.hint ? <p class="hint" id={`${id}-hint`}>{p.hint}</p> : null}
      <FieldError id={id} message={error} />
    </div>
  );
}

/** A labelled select of `options` (`[value, label]`). */
export function SelectField(p: FieldProps & { options: Array<[string, string]>; placeholder?: string; required?: boolean }) {
  const id = `${p.idPrefix ?? 'f'}-${p.name}`;
  const error = p.form.errors[p.name];
  const chosen = p.form.values[p.name] ?? '';
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select id={id} name={p.name} required={p.required} aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy(id, p.hint, error)}>
        {p.placeholder !== undefined ? <option value="">{p.placeholder}</option> : null}
        {p.options.map(([v, l]) => <option value={v} selected={v === chosen}>{l}</option>)}
      </select>
      {p.hint ? <p class="hint" id={`${id}-hint`}>{p.hint}</p> : null}
      <FieldError id={id} message={error} />
    </div>
  );
}

/** A fieldset of radio buttons (`[value, label]`), `checked` the chosen value. */
export function RadioGroup(p: FieldProps & { options: Array<[string, string]>; checked?: string }) {
  const id = `${p.idPrefix ?? 'f'}-${p.name}`;
  const error = p.form.errors[p.name];
  const chosen = p.form.values[p.name] ?? p.checked;
  return (
    <fieldset id={id} aria-describedby={describedBy(id, p.hint, error)} aria-invalid={error ? 'true' : undefined}>
      <legend>{p.label}</legend>
      {p.options.map(([v, l]) => (
        <label class="choice"><input type="radio" name={p.name} value={v} checked={v === chosen} /> {l}</label>
      ))}
      {p.hint ? <p class="hint" id={`${id}-hint`}>{p.hint}</p> : null}
      <FieldError id={id} message={error} />
    </fieldset>
  );
}

/** The form-level error (no field named), announced as an alert. */
export function FormError(p: { form: FormState; fallback: string }) {
  if (!p.form.formError && Object.keys(p.form.errors).length === 0) return null;
  return <p class="form-error" role="alert">{p.form.formError ?? p.fallback}</p>;
}

/** A POST form to `action` with its children. */
export function PostForm(p: { action: string; children: ComponentChildren; id?: string; class?: string }) {
  return <form method="post" action={p.action} id={p.id} class={p.class} noValidate>{p.children}</form>;
}
