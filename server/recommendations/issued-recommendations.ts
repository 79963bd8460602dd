import { program } from '../storage/program.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

/** One feed answer as the service issued it: what the feed report trusts instead of what a browser says. */
export interface IssuedRecommendation {
  project: string;
  /** A UUID (v4), the answer's `recommendationId`. */
  id: string;
  feedId: number;
  /** The strategy that produced the list (the feed's at the time). */
  strategy: string;
  /** The profile the list was for (the caller's; the report finds its person through identify and alias links). */
  profileId: string;
  /** The product ids answered, in order: a card's position is its index here plus one. */
  products: readonly string[];
  /** Epoch ms, the service's clock. */
  issuedAt: number;
}

function* issueProgram(issued: IssuedRecommendation): SqlProgram<void> {
  yield op(
    `INSERT INTO recommendations (project, recommendation_id, feed_id, strategy, profile_id, products, issued_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project, recommendation_id) DO NOTHING`,
    issued.project, issued.id, issued.feedId, issued.strategy, issued.profileId, JSON.stringify(issued.products),
    issued.issuedAt,
  );
}

/**
 * Records a feed answer before it is sent: a visitor's answer waits for the commit (the `interactive` lane), so an
 * impression or click the page reports can always find the id it carries.
 * @example await storage.place(ISSUE_RECOMMENDATION, { project, id, feedId: 1, strategy: 'popular', … });
 */
export const ISSUE_RECOMMENDATION = program('recommendations.issue', 'interactive', issueProgram);
