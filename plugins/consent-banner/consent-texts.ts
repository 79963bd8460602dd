// The shape of the banner's built-in texts, one module per language in texts/ (loaded by load-texts.ts);
// attributes and slots override them. Keys of `categories` are category names.
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
