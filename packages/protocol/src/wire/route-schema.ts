// What the route table (routes.ts) says of each route besides its method and path.
import type * as z from 'zod';

export interface RouteSchemas {
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The answer's status when it is not 200 (204 and redirects carry no body). */
  status?: number;
  /**
   * The answer's media type when it is not JSON (a stream, a file, a text for a scraper): the
   * route sends its own bytes and `response` describes them as a string.
   */
  contentType?: string;
  response: z.ZodType;
  summary: string;
}

/** Statuses whose answer carries no body. */
export const bodilessStatus = (status: number) => status === 204 || (status >= 300 && status < 400);
