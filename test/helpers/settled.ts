/** An element that reflects a `status` attribute and renders with Lit. */
export interface StatusElement extends HTMLElement {
  status: string;
  updateComplete: Promise<unknown>;
}

/** Resolves once `status` has left `loading` and the render that goes with it is done. */
export async function settled(el: StatusElement): Promise<void> {
  await new Promise<void>((resolve) => {
    if (el.status !== 'loading') return resolve();
    const watch = new MutationObserver(() => {
      if (el.status === 'loading') return;
      watch.disconnect();
      resolve();
    });
    watch.observe(el, { attributes: true, attributeFilter: ['status'] });
  });
  await el.updateComplete;
}
