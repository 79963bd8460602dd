import type { ConsentTexts } from '../consent-texts.js';

/** The banner's built-in German texts: a module of their own, which a page loads only when it shows them. */
const texts: ConsentTexts = {
  title: 'Ihre Privatsphäre',
  message: 'Wir verwenden Cookies und ähnliche Technologien, um unsere Website zu messen und zu verbessern und Inhalte zu personalisieren. Sie entscheiden, was Sie erlauben.',
  accept: 'Alle akzeptieren',
  reject: 'Alle ablehnen',
  customize: 'Anpassen',
  save: 'Auswahl speichern',
  gpc: 'Global Privacy Control: Wir verkaufen und teilen Ihre Daten nicht.',
  categories: { necessary: 'Notwendig', analytics: 'Statistik', marketing: 'Marketing', personalization: 'Personalisierung' },
};
export default texts;
