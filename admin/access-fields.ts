// The people and keys page's shared pieces: how a refusal reads, and the role and projects fields of both forms.
import { html, nothing, type TemplateResult } from 'lit';
import { ROLE_HINTS, ROLES, type Role } from './access.js';
import { ApiError } from './admin-api.js';

/** A form's refusal: the service's message, and the field it names first (`name: …`, `projects[0]: …`) if any. */
export interface FormError {
  field: string | undefined;
  message: string;
}

export const failure = (error: unknown): ApiError => (error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error)));

/** The form's error from a failure: a 400's message begins with the field it is about. */
export function formError(error: unknown): FormError {
  const e = failure(error);
  const field = e.code === 'invalid_request' ? /^([a-zA-Z]+)(?:\[\d+\])?:/.exec(e.message)?.[1] : undefined;
  return { field, message: e.message };
}

/** The keys' and people's load refused for the key's role (a viewer or editor key, or an admin key narrowed to projects). */
export const refusedForRole = (error: ApiError | undefined): boolean => error?.code === 'role_forbidden' || error?.code === 'admin_key_required';

export const spinner = (text: string): TemplateResult => html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>${text}</p></div>`;

/** Tomorrow as `YYYY-MM-DD`, the earliest expiry the date field offers (the service wants one in the future). */
export function tomorrow(): string {
  const d = new Date(Date.now() + 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A form's role select with the chosen role's hint. */
export function roleSelect(form: 'person' | 'key', role: Role, choose: (role: Role) => void, invalid: 'true' | typeof nothing): TemplateResult {
  return html`<div class="field">
    <label for=${`${form}-role`}>Role</label>
    <select id=${`${form}-role`} name="role" aria-invalid=${invalid} aria-describedby=${`${form}-role-hint`}
      @change=${(e: Event) => choose((e.target as HTMLSelectElement).value as Role)}>
      ${ROLES.map((r) => html`<option .value=${r} ?selected=${role === r}>${r}</option>`)}
    </select>
    <span class="hint" id=${`${form}-role-hint`}>${ROLE_HINTS[role]}</span>
  </div>`;
}

export function projectChoice(project: string, invalid: 'true' | typeof nothing): TemplateResult {
  return html`<fieldset class="projects" aria-invalid=${invalid}>
    <legend>Projects</legend>
    <label class="choice"><input type="radio" name="projects" value="all" checked> All projects</label>
    <label class="choice"><input type="radio" name="projects" value="this"> Only this project (${project})</label>
  </fieldset>`;
}

/** A row's projects: their names, or all of them. */
export function projectsText(projects: string[] | null): TemplateResult {
  return projects ? html`${projects.join(', ')}` : html`<span class="muted">all projects</span>`;
}

/** What a form of the page shows and calls: its refusal, its role, the signed-in project, what is busy, its submit. */
export interface FormState {
  error: FormError | undefined;
  role: Role;
  setRole: (role: Role) => void;
  project: string;
  busy: string | undefined;
  submit: (e: SubmitEvent) => void;
}

/** The form that adds a person: email, role, projects. */
export function personForm(f: FormState): TemplateResult {
  const error = f.error;
  const invalid = (field: string) => (error?.field === field ? 'true' : nothing);
  return html`<form aria-labelledby="add-person" @submit=${(e: SubmitEvent) => f.submit(e)}>
    <h3 id="add-person">Add a person</h3>
    <div class="fields">
      <div class="field">
        <label for="person-email">Email</label>
        <input id="person-email" name="email" type="email" required autocomplete="off" spellcheck="false" maxlength="254"
          aria-invalid=${invalid('email')} aria-describedby=${error ? 'person-error' : nothing}>
      </div>
      ${roleSelect('person', f.role, f.setRole, invalid('role'))}
    </div>
    ${projectChoice(f.project, invalid('projects'))}
    ${error ? html`<div class="alert error" id="person-error" role="alert">${error.message}</div>` : nothing}
    <div class="buttons">
      <button type="submit" class="primary" value="invite" ?disabled=${f.busy === 'person'} aria-describedby="invite-hint">
        ${f.busy === 'person' ? 'Adding…' : 'Add and invite'}</button>
      <button type="submit" value="add" ?disabled=${f.busy === 'person'}>Add without invitation</button>
    </div>
    <p class="hint" id="invite-hint">The invitation is a link to send them, with which they set a password. People who sign in
      with single sign-on need none.</p>
  </form>`;
}

/** The form that makes a key: name, role, expiry, projects. */
export function keyForm(f: FormState): TemplateResult {
  const error = f.error;
  const invalid = (field: string) => (error?.field === field ? 'true' : nothing);
  const described = error ? 'key-error' : nothing;
  return html`<form aria-labelledby="new-key" @submit=${(e: SubmitEvent) => f.submit(e)}>
    <h3 id="new-key">New key</h3>
    <div class="fields">
      <div class="field">
        <label for="key-name">Name</label>
        <input id="key-name" name="name" required maxlength="64" autocomplete="off" aria-invalid=${invalid('name')}
          aria-describedby=${error ? 'key-error key-name-hint' : 'key-name-hint'}>
        <span class="hint" id="key-name-hint">What uses it, e.g. CI deploy.</span>
      </div>
      ${roleSelect('key', f.role, f.setRole, invalid('role'))}
      <div class="field">
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" name="expiresAt" type="date" min=${tomorrow()} aria-invalid=${invalid('expiresAt')}
          aria-describedby=${error ? 'key-error key-expires-hint' : 'key-expires-hint'}>
        <span class="hint" id="key-expires-hint">Left empty, it never expires.</span>
      </div>
    </div>
    ${projectChoice(f.project, invalid('projects'))}
    ${error ? html`<div class="alert error" id="key-error" role="alert">${error.message}</div>` : nothing}
    <div class="buttons">
      <button type="submit" class="primary" ?disabled=${f.busy === 'key'} aria-describedby=${described}>${f.busy === 'key' ? 'Creating…' : 'Create key'}</button>
    </div>
  </form>`;
}
