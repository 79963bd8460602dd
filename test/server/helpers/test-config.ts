import type { ServiceConfigFile } from '../../../server/config/config-types.js';

/** Two projects in one org, one in another org, and a project with tight limits and an origin allow-list. */
export function testConfig(): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        projects: {
          shop: {
            apiKeys: ['srv1.s3cret'],
            writeKeys: ['web1.p4ss', 'web2.dot.ted'],
            sources: ['web', 'app'],
            experiences: [{ name: 'welcome-note', body: { text: 'Hello again' } }],
          },
          blog: { apiKeys: ['srvblog.x'], writeKeys: ['webblog.y'], sources: ['web'] },
          tight: {
            apiKeys: ['srvtight.a', 'srvtight2.c'],
            writeKeys: ['webtight.b'],
            sources: ['web'],
            limits: { writeKeyPerSecond: 1, apiKeyPerSecond: 1 },
            allowedOrigins: ['https://shop.example.com'],
          },
        },
      },
      other: { projects: { site: { apiKeys: ['srvother.z'], writeKeys: ['webother.w'], sources: ['web'] } } },
    },
  };
}

export function basic(writeKey: string): string {
  const dot = writeKey.indexOf('.');
  return `Basic ${Buffer.from(`${writeKey.slice(0, dot)}:${writeKey.slice(dot + 1)}`).toString('base64')}`;
}
