import { css } from 'lit';

/** `<svc-admin>`'s own styles: the header with its navigation, the main column and its notices. */
export const appStyles = css`
    :host {
      min-block-size: 100vh;
      background: #f6f8fa;
    }
    header button.skip {
      position: absolute;
      inset-inline-start: 1rem;
      inset-block-start: -4rem;
      z-index: 1;
      background: #fff;
      color: #0969da;
      font-weight: 600;
    }
    header button.skip:focus {
      inset-block-start: 0.5rem;
    }
    header {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem 1.5rem;
      padding: 0.75rem 2rem;
      background: #12355b;
      color: #fff;
    }
    .brand {
      font-size: 1.0625rem;
      font-weight: 700;
    }
    .context {
      color: #d0def0;
      font-size: 0.875rem;
    }
    nav {
      display: flex;
      flex: 1;
      flex-wrap: wrap;
      gap: 0.25rem;
    }
    header button {
      border-color: transparent;
      background: transparent;
      color: #fff;
    }
    header button:hover:not(:disabled) {
      border-color: transparent;
      background: rgb(255 255 255 / 0.12);
    }
    header button[aria-current='page'] {
      background: rgb(255 255 255 / 0.18);
    }
    header button.sign-out {
      border-color: rgb(255 255 255 / 0.5);
    }
    header :focus-visible {
      outline-color: #f5a623;
    }
    main {
      box-sizing: border-box;
      max-inline-size: 84rem;
      margin: 0 auto;
      padding: 1.5rem 2rem 4rem;
    }
    main:focus {
      outline: none;
    }
    .notices:not(:empty) {
      margin-block-end: 1rem;
    }
    .role-needed {
      max-inline-size: 40rem;
    }
    .role-needed p {
      margin: 0.5rem 0 0;
    }
    .notices .alert {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: 0.5rem;
    }
    @media (max-width: 40rem) {
      header {
        padding: 0.5rem 1rem;
        gap: 0.25rem 1rem;
      }
      nav {
        order: 3;
        flex-basis: 100%;
      }
      main {
        padding: 1rem 1rem 3rem;
      }
    }
`;
