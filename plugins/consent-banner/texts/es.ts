import type { ConsentTexts } from '../consent-texts.js';

/** The banner's built-in Spanish texts: a module of their own, which a page loads only when it shows them. */
const texts: ConsentTexts = {
  title: 'Su privacidad',
  message: 'Usamos cookies y tecnologías similares para medir y mejorar nuestro sitio y personalizar el contenido. Usted elige qué permite.',
  accept: 'Aceptar todo',
  reject: 'Rechazar todo',
  customize: 'Personalizar',
  save: 'Guardar selección',
  gpc: 'Global Privacy Control: no vendemos ni compartimos sus datos.',
  categories: { necessary: 'Necesarias', analytics: 'Analíticas', marketing: 'Marketing', personalization: 'Personalización' },
};
export default texts;
