import type { ConsentTexts } from '../consent-texts.js';

/** The banner's built-in French texts: a module of their own, which a page loads only when it shows them. */
const texts: ConsentTexts = {
  title: 'Votre vie privée',
  message: 'Nous utilisons des cookies et des technologies similaires pour mesurer et améliorer notre site et personnaliser le contenu. Vous choisissez ce que vous autorisez.',
  accept: 'Tout accepter',
  reject: 'Tout refuser',
  customize: 'Personnaliser',
  save: 'Enregistrer mes choix',
  gpc: 'Global Privacy Control : nous ne vendons ni ne partageons vos données.',
  categories: { necessary: 'Nécessaires', analytics: 'Mesure d’audience', marketing: 'Marketing', personalization: 'Personnalisation' },
};
export default texts;
