// The two routes that look one thing up by its key: with the key in the query, answered as a list
// of zero or one (never a 404, so a client asks without knowing whether it exists), and with the key
// in the path, answered as the thing itself or a 404.
import * as z from 'zod';

export function keyLookups<K extends z.ZodObject, R extends z.ZodType>(
  what: string,
  none: string,
  key: K,
  item: R,
) {
  return {
    inQuery: { summary: `${what}, as a list of zero or one.`, query: key, response: z.array(item) },
    inPath: { summary: `${what}; 404 when ${none}.`, params: key, response: item },
  };
}
