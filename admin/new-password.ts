// A new password and its confirmation, as the invitation page and the account page ask for it. The length rule is the
// service's (12 to 128 characters); checking it here too says so before anything is sent.
import { html, nothing, type TemplateResult } from 'lit';
import type { PasswordReveal } from './password-reveal.js';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** What is wrong with a new password and its confirmation, and which field it is about; undefined when nothing is. */
export function newPasswordProblem(password: string, confirm: string): { field: 'new-password' | 'confirm-password'; message: string } | undefined {
  // Characters as the service counts them (code points): an emoji is one, not two.
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    return { field: 'new-password', message: `The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long (it has ${length}).` };
  }
  if (password !== confirm) return { field: 'confirm-password', message: 'The two passwords are not the same.' };
  return undefined;
}

/**
 * The two fields, each with its Show button (`reveal` is the element's). `invalid` names the one to mark, and `errorId`
 * the message that describes it. Browsers and password managers offer a strong password for a field with
 * `autocomplete="new-password"`.
 */
export function newPasswordFields(invalid: string | undefined, errorId: string, reveal: PasswordReveal): TemplateResult {
  const described = (field: string, hint?: string) => [invalid === field ? errorId : '', hint ?? ''].filter(Boolean).join(' ') || nothing;
  return html`<div class="field">
      <label for="new-password">New password</label>
      <div class="password-input">
        <input id="new-password" name="password" type=${reveal.type('new-password')} autocomplete="new-password" required
          minlength=${PASSWORD_MIN} maxlength=${PASSWORD_MAX} spellcheck="false" autocapitalize="off" autocorrect="off"
          aria-invalid=${invalid === 'new-password' ? 'true' : nothing} aria-describedby=${described('new-password', 'new-password-hint')}>
        ${reveal.button('new-password')}
      </div>
      <span class="hint" id="new-password-hint">At least ${PASSWORD_MIN} characters. A few unrelated words make a good one.</span>
    </div>
    <div class="field">
      <label for="confirm-password">Confirm the new password</label>
      <div class="password-input">
        <input id="confirm-password" name="confirm" type=${reveal.type('confirm-password')} autocomplete="new-password" required
          maxlength=${PASSWORD_MAX} spellcheck="false" autocapitalize="off" autocorrect="off"
          aria-invalid=${invalid === 'confirm-password' ? 'true' : nothing} aria-describedby=${described('confirm-password')}>
        ${reveal.button('confirm-password')}
      </div>
    </div>`;
}
