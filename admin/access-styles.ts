import { css } from 'lit';

/** `<svc-admin-access>`'s own styles, beside the console's shared ones. */
export const accessStyles = css`
    section {
      margin-block-end: 2.5rem;
    }
    section > h2 {
      margin-block: 0 0.5rem;
      font-size: 1.125rem;
    }
    section > .hint {
      margin-block-end: 0.75rem;
    }
    form {
      display: grid;
      gap: 0.75rem;
      max-inline-size: 40rem;
      margin-block-start: 1rem;
      padding: 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    form h3 {
      margin: 0;
      font-size: 1rem;
    }
    .fields {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      gap: 0.75rem;
    }
    fieldset.projects {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1.25rem;
    }
    fieldset.projects legend {
      margin-block-end: 0.25rem;
    }
    td,
    th {
      white-space: nowrap;
    }
    tbody th,
    td.projects {
      white-space: normal;
      overflow-wrap: anywhere;
    }
    .role {
      display: flex;
      flex-wrap: wrap;
      gap: 0.375rem;
      align-items: center;
    }
    .role select {
      inline-size: auto;
      min-inline-size: 7rem;
    }
    .alert.list {
      margin-block-end: 0.75rem;
    }
  `;
