import { expect } from '@open-wc/testing';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature, type Client, type EvaluationContext, type JsonValue } from '@openfeature/web-sdk';

// OpenFeature's own web SDK with its OFREP web provider in Chromium, against our running service (web-test-runner
// proxies `/ofrep` and `/v1` to it, `/pg/…` to the PostgreSQL one), with the README snippet's writeKey and source: a
// running experiment, a stopped one with a winner, an unknown flag, a missing targeting key. The experiments
// `ofrep-hero` and `ofrep-shipped` of test/fixtures/recommendations.config.json are this file's alone.

const FALLBACK: JsonValue = { title: 'from the code' };

/** The writeKey and source of the README's snippet, as a site owner copies them. */
async function snippetKeys(): Promise<{ writeKey: string; sourceId: string }> {
  const readme = await (await fetch('/README.md')).text();
  const loader = readme.split('\n').filter((line) => line.startsWith('!function'))[1] ?? '';
  const writeKey = /writeKey:"([^"]+)"/.exec(loader)?.[1];
  const sourceId = /sourceId:"([^"]+)"/.exec(loader)?.[1];
  if (writeKey === undefined || sourceId === undefined) throw new Error('the README snippet names no writeKey or sourceId');
  return { writeKey, sourceId };
}

/** HTTP Basic for a writeKey, split at its first dot. */
function basic(writeKey: string): string {
  const dot = writeKey.indexOf('.');
  return `Basic ${btoa(`${writeKey.slice(0, dot)}:${writeKey.slice(dot + 1)}`)}`;
}

for (const [database, base] of [['SQLite', location.origin], ['PostgreSQL', `${location.origin}/pg`]] as const) {
  describe(`OpenFeature web SDK with the OFREP web provider (${database})`, () => {
    afterEach(() => OpenFeature.clearProviders());

    /** A client of a domain of its own, its provider ready for `context` (nothing kept in localStorage between tests). */
    async function clientFor(context: EvaluationContext): Promise<Client> {
      const { writeKey } = await snippetKeys();
      const provider = new OFREPWebProvider({ baseUrl: base, headers: [['Authorization', basic(writeKey)]], cacheMode: 'disabled' });
      const domain = `svc-${crypto.randomUUID()}`;
      await OpenFeature.setProviderAndWait(domain, provider, context);
      return OpenFeature.getClient(domain);
    }

    /** What the Choose API serves `profileId` for `name` (no exposure recorded). */
    async function chosen(profileId: string, name: string): Promise<{ variation?: string; body: unknown } | undefined> {
      const { writeKey, sourceId } = await snippetKeys();
      const response = await fetch(`${base}/v1/acme/projects/shop/optimization/choose-api`, {
        method: 'POST',
        headers: { Authorization: basic(writeKey), 'Content-Type': 'application/json' },
        body: JSON.stringify({ identification: { sourceId, profileId }, names: [name], deferExposure: true }),
      });
      expect(response.status, 'Choose API').to.equal(200);
      return ((await response.json()) as { choices: { variation?: string; body: unknown }[] }).choices[0];
    }

    it('a running experiment: the variant and value the Choose API serves the same profile, reason SPLIT', async () => {
      for (let i = 0; i < 4; i++) {
        const profileId = crypto.randomUUID();
        const client = await clientFor({ targetingKey: profileId });
        const details = client.getObjectDetails('ofrep-hero', FALLBACK);
        const choice = await chosen(profileId, 'ofrep-hero');
        expect(details.errorCode, details.errorMessage).to.equal(undefined);
        expect(details.reason).to.equal('SPLIT');
        expect(details.variant).to.be.oneOf(['control', 'bold']);
        expect(details.variant).to.equal(choice?.variation);
        expect(details.value).to.deep.equal(choice?.body);
        await OpenFeature.clearProviders();
      }
    });

    it('a stopped experiment with a winner: everyone gets the winner, reason STATIC', async () => {
      const client = await clientFor({ targetingKey: crypto.randomUUID() });
      const details = client.getObjectDetails('ofrep-shipped', FALLBACK);
      expect([details.reason, details.variant, details.value]).to.deep.equal(['STATIC', 'bold', { title: 'Big sale' }]);
    });

    it('an unknown flag: the code default, FLAG_NOT_FOUND', async () => {
      const client = await clientFor({ targetingKey: crypto.randomUUID() });
      const details = client.getObjectDetails('no-such-flag', FALLBACK);
      expect([details.value, details.reason, details.errorCode]).to.deep.equal([FALLBACK, 'ERROR', 'FLAG_NOT_FOUND']);
    });

    it('a missing targeting key: the code default, TARGETING_KEY_MISSING, flag by flag', async () => {
      const client = await clientFor({});
      const details = client.getObjectDetails('ofrep-hero', FALLBACK);
      expect([details.value, details.reason, details.errorCode]).to.deep.equal([FALLBACK, 'ERROR', 'TARGETING_KEY_MISSING']);
    });
  });
}
