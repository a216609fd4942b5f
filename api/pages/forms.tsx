/**
 * Form parts shared by the pages: labelled inputs and selects whose error, when the
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
export function refusal(
  error: unknown,
  values: Record<string, string>,
  paramToField: Record<string, string> = {},
): FormState & { status: number } {
  if (!isDomainError(error) || error.status >= 500 || (error.type === 'not_found' && !error.param) || error.type === 'rate_limit_error')
    throw error;
  const param = error.param?.split('.')[0];
  const field = param ? (paramToField[param] ?? param) : undefined;
  return field
    ? { values, errors: { [field]: error.message }, status: error.status }
    : { values, errors: {}, formError: error.message, status: error.status };
}

interface FieldProps {
  name: string;
  label: string;
  form: FormState;
  hint?: string;
  idPrefix?: string;
}

function describedBy(id: string, hint: string | undefined, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids || undefined;
}

/** A labelled text (or email) input. */
export function TextField(
  props: FieldProps & { type?: 'text' | 'email'; autocomplete?: string; required?: boolean; inputmode?: string; value?: string },
) {
  const id = `${props.idPrefix ?? 'f'}-${props.name}`;
  const error = props.form.errors[props.name];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={(props.type ?? 'text') as 'text'}
        value={props.form.values[props.name] ?? props.value ?? ''}
        autocomplete={props.autocomplete ?? 'off'}
        required={props.required}
        inputMode={props.inputmode as 'text' | undefined}
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, props.hint, error)}
      />
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError id={id} message={error} />
    </div>
  );
}

/** A labelled select of `options` (`[value, label]`). */
export function SelectField(props: FieldProps & { options: Array<[string, string]>; placeholder?: string; required?: boolean }) {
  const id = `${props.idPrefix ?? 'f'}-${props.name}`;
  const error = props.form.errors[props.name];
  const chosen = props.form.values[props.name] ?? '';
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        required={props.required}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, props.hint, error)}
      >
        {props.placeholder !== undefined ? <option value="">{props.placeholder}</option> : null}
        {props.options.map(([v, l]) => (
          <option value={v} selected={v === chosen}>
            {l}
          </option>
        ))}
      </select>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError id={id} message={error} />
    </div>
  );
}

/** A fieldset of radio buttons (`[value, label]`), `checked` the chosen value. */
export function RadioGroup(props: FieldProps & { options: Array<[string, string]>; checked?: string }) {
  const id = `${props.idPrefix ?? 'f'}-${props.name}`;
  const error = props.form.errors[props.name];
  const chosen = props.form.values[props.name] ?? props.checked;
  return (
    <fieldset id={id} aria-describedby={describedBy(id, props.hint, error)} aria-invalid={error ? 'true' : undefined}>
      <legend>{props.label}</legend>
      {props.options.map(([v, l]) => (
        <label class="choice">
          <input type="radio" name={props.name} value={v} checked={v === chosen} /> {l}
        </label>
      ))}
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError id={id} message={error} />
    </fieldset>
  );
}

/** The form-level error (no field named), announced as an alert. */
export function FormError(props: { form: FormState; fallback: string }) {
  if (!props.form.formError && Object.keys(props.form.errors).length === 0) return null;
  return (
    <p class="form-error" role="alert">
      {props.form.formError ?? props.fallback}
    </p>
  );
}

/** A POST form to `action` with its children. */
export function PostForm(props: { action: string; children: ComponentChildren; id?: string; class?: string }) {
  return (
    <form method="post" action={props.action} id={props.id} class={props.class} noValidate>
      {props.children}
    </form>
  );
}
