/**
 * One way for every form to answer a problem: the error next to its field (`aria-invalid`,
 * `aria-describedby`), what was typed put back, and (app.js) focus on the first invalid field. A page
 * gets `it.form(action)` and each field asks it for its value, its attributes and its error.
 *
 * Values come from the POST that failed, or from a form posted on an ended session and kept through
 * sign-in (kept-form.ts). Secret fields (passwords, keys) are never kept: `keptValues` drops them, and
 * their templates never ask for a value.
 */

export interface FormState {
  /** The form's `action` path: a page with several forms shows the state only at the one that was posted. */
  action: string;
  values: Readonly<Record<string, string>>;
  errors: Readonly<Record<string, string>>;
}

export interface FieldView {
  /** True when this is the form that was posted (e.g. to open the <details> it sits in). */
  posted: boolean;
  /** What was typed, or `fallback` when this form was not the one posted. */
  value(name: string, fallback?: string): string;
  /** The field's error message, if any. */
  error(name: string): string | undefined;
  /** ` aria-invalid="true" aria-describedby="<id>-error"` when the field has an error; empty otherwise (HTML, already safe). */
  invalid(name: string, id: string): string;
}

/** Fields never written back into a page or kept in a cookie, whatever form they come from. */
const SECRET_FIELD = /pass|key$|^key|secret|token|csrf/i;
const MAX_KEPT_VALUE = 4000;

/** The fields of a posted form that may be shown again (no secrets, bounded). */
export function keptValues(form: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(form)) {
    // `conversation`: the playground's carried chat (up to 8 KiB) would crowd the typed message out of a
    // kept form's cookie; a chat interrupted by an ended session starts again.
    if (SECRET_FIELD.test(name) || name === 'next' || name === 'conversation') continue;
    kept[name] = value.slice(0, MAX_KEPT_VALUE);
  }
  return kept;
}

/** The state a form answers with after a problem: the errors by field and the non-secret input kept. */
export function formProblem(action: string, form: Readonly<Record<string, string>>, errors: Readonly<Record<string, string>>): { formState: FormState } {
  return { formState: { action, values: keptValues(form), errors } };
}

/** The view templates use: `it.form(action)`. Ids in `invalid` are the template's own, so they are safe in an attribute. */
export function formView(state: FormState | null | undefined): (action: string) => FieldView {
  return (action) => {
    const mine = state?.action === action ? state : null;
    return {
      posted: mine !== null,
      value: (name, fallback = '') => (mine && name in mine.values && !SECRET_FIELD.test(name) ? mine.values[name]! : fallback),
      error: (name) => mine?.errors[name],
      invalid: (name, id) => (mine?.errors[name] ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''),
    };
  };
}
