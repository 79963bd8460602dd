import type { ConsentTexts } from '../consent-texts.js';

/** The banner's built-in English texts: a module of their own, which a page loads only when it shows them. */
const texts: ConsentTexts = {
  title: 'Your privacy',
  message: 'We use cookies and similar technologies to measure and improve our site and to personalize content. You choose what you allow.',
  accept: 'Accept all',
  reject: 'Reject all',
  customize: 'Customize',
  save: 'Save choices',
  gpc: 'Global Privacy Control: we neither sell nor share your data.',
  categories: { necessary: 'Necessary', analytics: 'Analytics', marketing: 'Marketing', personalization: 'Personalization' },
};
export default texts;
