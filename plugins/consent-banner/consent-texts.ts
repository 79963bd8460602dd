// Built-in banner texts; attributes and slots override them. Keys of `categories` are category names.
export interface ConsentTexts {
  title: string;
  message: string;
  accept: string;
  reject: string;
  customize: string;
  save: string;
  /** Said while the browser sends Global Privacy Control (its categories' switches are off and locked). */
  gpc: string;
  categories: Record<string, string>;
}

export const TEXTS: Record<'en' | 'de' | 'fr' | 'es', ConsentTexts> = {
  en: {
    title: 'Your privacy',
    message: 'We use cookies and similar technologies to measure and improve our site and to personalize content. You choose what you allow.',
    accept: 'Accept all',
    reject: 'Reject all',
    customize: 'Customize',
    save: 'Save choices',
    gpc: 'Global Privacy Control: we neither sell nor share your data.',
    categories: { necessary: 'Necessary', analytics: 'Analytics', marketing: 'Marketing', personalization: 'Personalization' },
  },
  de: {
    title: 'Ihre Privatsphäre',
    message: 'Wir verwenden Cookies und ähnliche Technologien, um unsere Website zu messen und zu verbessern und Inhalte zu personalisieren. Sie entscheiden, was Sie erlauben.',
    accept: 'Alle akzeptieren',
    reject: 'Alle ablehnen',
    customize: 'Anpassen',
    save: 'Auswahl speichern',
    gpc: 'Global Privacy Control: Wir verkaufen und teilen Ihre Daten nicht.',
    categories: { necessary: 'Notwendig', analytics: 'Statistik', marketing: 'Marketing', personalization: 'Personalisierung' },
  },
  fr: {
    title: 'Votre vie privée',
    message: 'Nous utilisons des cookies et des technologies similaires pour mesurer et améliorer notre site et personnaliser le contenu. Vous choisissez ce que vous autorisez.',
    accept: 'Tout accepter',
    reject: 'Tout refuser',
    customize: 'Personnaliser',
    save: 'Enregistrer mes choix',
    gpc: 'Global Privacy Control : nous ne vendons ni ne partageons vos données.',
    categories: { necessary: 'Nécessaires', analytics: 'Mesure d’audience', marketing: 'Marketing', personalization: 'Personnalisation' },
  },
  es: {
    title: 'Su privacidad',
    message: 'Usamos cookies y tecnologías similares para medir y mejorar nuestro sitio y personalizar el contenido. Usted elige qué permite.',
    accept: 'Aceptar todo',
    reject: 'Rechazar todo',
    customize: 'Personalizar',
    save: 'Guardar selección',
    gpc: 'Global Privacy Control: no vendemos ni compartimos sus datos.',
    categories: { necessary: 'Necesarias', analytics: 'Analíticas', marketing: 'Marketing', personalization: 'Personalización' },
  },
};

/** Texts for a `lang` such as `de` or `fr-CA`; English otherwise. */
export function textsFor(lang: string | undefined): ConsentTexts {
  const base = (lang ?? '').slice(0, 2).toLowerCase();
  return base in TEXTS ? TEXTS[base as keyof typeof TEXTS] : TEXTS.en;
}
