import { ApiError } from './admin-api.js';
import { navigate, notify, type AdminView } from './admin-events.js';
import type { ApiView } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';

/**
 * An editor of one item (an experience, a feed): `saving` turns its buttons off while a save or delete is under way,
 * `saveError` is what the last one failed with, shown in an alert in its `.form-actions`. It renders an
 * `<svc-admin-confirm>`.
 */
export interface ItemEditor extends ApiView {
  saving: boolean;
  saveError: ApiError | undefined;
}

/** What follows a save or delete that worked. */
export interface ChangeDone<T> {
  /** Where the console goes. */
  view: AdminView;
  /** The sentence announced, from what the service answered. */
  notice: (result: T) => string;
  /** A create-only save (If-None-Match: *): a version conflict means an item of that id exists, and this says so. */
  exists?: string;
}

/**
 * Saves or deletes with `change`: done, the console goes to `done.view` and announces it; failed, the form stays as it
 * is and the error shows, focused, at its actions.
 */
export async function runChange<T>(editor: ItemEditor, change: () => Promise<T>, done: ChangeDone<T>): Promise<void> {
  editor.saving = true;
  editor.saveError = undefined;
  try {
    const result = await change().catch((error: unknown) => {
      if (done.exists !== undefined && error instanceof ApiError && error.code === 'version_conflict') {
        throw new ApiError(409, 'already_exists', done.exists);
      }
      throw error;
    });
    navigate(editor, done.view);
    notify(editor, done.notice(result));
    return;
  } catch (error) {
    editor.saveError = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
  } finally {
    editor.saving = false;
  }
  await focus(editor, '.form-actions [role="alert"]');
}

/** Asks in the editor's confirm dialog whether to delete: true once confirmed. */
export async function confirmDelete(editor: ItemEditor, title: string, consequence: string): Promise<boolean> {
  const dialog = editor.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!;
  const answer = await dialog.ask({ title, describe: () => consequence, confirmLabel: () => 'Delete', danger: true });
  return Boolean(answer);
}

/** Discards the form and loads the version someone else saved, then announces `loaded()` (nothing: it was not found). */
export async function reloadTheirs(editor: ItemEditor, loaded: () => string | undefined): Promise<void> {
  await editor.reload();
  await focus(editor, 'h1');
  const notice = loaded();
  if (notice !== undefined) notify(editor, notice);
}

/**
 * Keyboard focus after the form changed under it: Save (disabled while saving) or "Load their version" (replaced
 * by the form) had it, and it would fall back to the page.
 */
async function focus(editor: ItemEditor, selector: string): Promise<void> {
  await editor.updateComplete;
  editor.renderRoot.querySelector<HTMLElement>(selector)?.focus();
}
