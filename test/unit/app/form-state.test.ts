import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formProblem, formView, keptValues } from '../../../src/app/form-state.js';

describe('form state: errors at the field, input kept', () => {
  it('shows the state only at the form that was posted', () => {
    const { formState } = formProblem('/app/keys', { name: 'laptop', monthlyRequests: 'lots' }, { monthlyRequests: 'The monthly cap must be a whole number of at least 1.' });
    const posted = formView(formState)('/app/keys');
    expect(posted.posted).toBe(true);
    expect(posted.value('name')).toBe('laptop');
    expect(posted.value('monthlyRequests')).toBe('lots');
    expect(posted.error('monthlyRequests')).toContain('whole number');
    expect(posted.invalid('monthlyRequests', 'key-cap')).toBe(' aria-invalid="true" aria-describedby="key-cap-error"');
    expect(posted.invalid('name', 'key-name')).toBe('');
    const other = formView(formState)('/app/keys/k1/limits');
    expect(other.posted).toBe(false);
    expect(other.value('monthlyRequests', '5')).toBe('5');
    expect(other.error('monthlyRequests')).toBeUndefined();
    expect(formView(undefined)('/app/keys').value('name', 'x')).toBe('x');
  });

  it('never keeps a password, a key, a token or the form token', () => {
    const kept = keptValues({ email: 'a@example.com', password: 'hunter2hunter2', currentPassword: 'p', newPassword: 'q', key: 'sk-live-123', csrf: 't', token: 'link', next: '/app/keys', name: 'ci' });
    expect(kept).toEqual({ email: 'a@example.com', name: 'ci' });
    // Even a state built by hand does not hand a secret field's value to a template.
    const view = formView({ action: '/a', values: { password: 'secret-value' }, errors: {} })('/a');
    expect(view.value('password')).toBe('');
  });

  it('keeps the playground message but not its carried conversation (which would crowd the message out)', () => {
    expect(keptValues({ profile: 'router/frontier', conversation: '[{"role":"user","content":"x"}]', message: 'hello' })).toEqual({ profile: 'router/frontier', message: 'hello' });
  });

  it('keeps any non-secret field bounded and never throws, whatever is posted', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 5000 })), (form) => {
        const kept = keptValues(form);
        for (const [name, value] of Object.entries(kept)) {
          expect(/pass|key$|^key|secret|token|csrf/i.test(name)).toBe(false);
          expect(value.length).toBeLessThanOrEqual(4000);
          expect(form[name]!.startsWith(value)).toBe(true);
        }
      }),
    );
  });
});

describe('fields named like Object.prototype members', () => {
  it('are kept as the data they are, and a field the form lacks is never one of Object’s', () => {
    const form = JSON.parse('{"__proto__":"a","constructor":"b","email":"c@example.com"}') as Record<string, string>;
    const kept = keptValues(form);
    expect(Object.entries(kept)).toEqual([['__proto__', 'a'], ['constructor', 'b'], ['email', 'c@example.com']]);
    expect(keptValues({ email: 'x' }).toString).toBeUndefined();
  });
});
