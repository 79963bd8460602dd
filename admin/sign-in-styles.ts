import { css } from 'lit';

/** The sign-in screens' card (sign-in and invitation), beside the console's shared styles. */
export const signInStyles = css`
  :host {
    max-inline-size: 28rem;
    margin: 2rem auto;
  }
  .card {
    display: grid;
    gap: 1rem;
    padding: 1.5rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  form {
    display: grid;
    gap: 1rem;
  }
  .pair {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr));
    gap: 1rem;
  }
  form button {
    justify-self: start;
  }
  /* Single sign-on: the whole width, outlined, above the password form it is the alternative to. */
  form button.sso {
    justify-self: stretch;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    box-sizing: border-box;
    min-height: 2.5rem;
    padding: 0.5rem 1rem;
    border: 1px solid #0969da;
    border-radius: 6px;
    background: #fff;
    color: #0969da;
    font-weight: 600;
    text-decoration: none;
  }
  form button.sso:hover {
    background: #ddf4ff;
  }
  .or {
    display: flex;
    align-items: center;
    gap: 0.75rem;
    color: #59636e;
    font-size: 0.8125rem;
  }
  .or::before,
  .or::after {
    content: '';
    flex: 1;
    border-block-start: 1px solid #d1d9e0;
  }
  details {
    border-block-start: 1px solid #d1d9e0;
    padding-block-start: 0.75rem;
  }
  summary {
    cursor: pointer;
    color: #0969da;
    font-weight: 500;
  }
  details[open] summary {
    margin-block-end: 0.75rem;
  }
  .signed-in {
    display: grid;
    gap: 0.5rem;
  }
`;
