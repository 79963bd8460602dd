import { css } from 'lit';

// The feed editor's layout on top of editorStyles: the form beside its preview on a wide screen (the preview stays in
// view while rules are edited), one above the other on a narrow one; a rule a card, a condition a row that wraps.
export const feedEditorStyles = css`
  .layout {
    display: grid;
    gap: 1.25rem;
  }
  @media (min-width: 72rem) {
    .layout {
      grid-template-columns: minmax(0, 3fr) minmax(0, 2fr);
      align-items: start;
    }
    svc-admin-feed-preview {
      position: sticky;
      top: 1rem;
    }
  }
  fieldset.panel {
    margin: 0;
  }
  fieldset.panel > legend {
    float: left;
    inline-size: 100%;
    padding: 0;
  }
  fieldset.panel > legend + * {
    clear: both;
  }
  h2 {
    margin: 0;
    font-size: 1.125rem;
  }
  .rules,
  .conditions,
  .fallbacks {
    display: grid;
    gap: 0.75rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .rule fieldset {
    display: grid;
    gap: 0.75rem;
    margin: 0;
    padding: 0.75rem 1rem 1rem;
    border: 1px solid #d1d9e0;
    border-radius: 8px;
  }
  .rule legend {
    padding: 0 0.25rem;
    font-weight: 600;
  }
  .rule-head {
    display: flex;
    flex-wrap: wrap;
    align-items: end;
    gap: 0.5rem 0.75rem;
  }
  .rule-head .field {
    flex: 1 1 9rem;
    min-inline-size: 0;
  }
  .rule-head .field:first-child {
    flex: 0 1 10rem;
  }
  .rule-head .field.short {
    flex: 0 1 6rem;
  }
  /* A condition: field, operator, value, Remove in line; on a phone field and operator, then value and Remove. */
  .condition {
    display: grid;
    grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) minmax(0, 1fr) auto;
    align-items: start;
    gap: 0.5rem 0.75rem;
  }
  .condition > button {
    margin-block-start: 1.75rem;
  }
  .condition .same {
    margin: 1.75rem 0 0;
  }
  .condition .relative {
    margin-block-start: 0.25rem;
    font-size: 0.875rem;
  }
  @media (max-width: 40rem) {
    .condition {
      grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
      padding-block-end: 0.75rem;
      border-block-end: 1px solid #eaeef2;
    }
    .condition > button {
      margin-block-start: 0;
      justify-self: start;
    }
  }
  .rule-actions {
    justify-content: flex-end;
  }
  .fallbacks li {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
    padding: 0.5rem 0.75rem;
    border: 1px solid #d1d9e0;
    border-radius: 8px;
  }
  .fallbacks .source {
    font-weight: 600;
  }
  .add-fallback {
    max-inline-size: 20rem;
  }
  .checks {
    gap: 1.25rem;
  }
`;
