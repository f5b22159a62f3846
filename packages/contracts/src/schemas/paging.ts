/** The `page` and `page_size` query parameters every list takes, with their own messages. */
import { z } from 'zod';
import { commonMessages as m } from '../messages/common.js';
import { format } from '../messages.js';

const positiveInt = (message: string, max: number, fallback: number) =>
  z.coerce
    .number({ error: message })
    .int({ error: message })
    .min(1, { error: message })
    .max(max, { error: message })
    .default(fallback);

/** A page number: 1 to 100,000 (past any list's end, which answers an empty page), 1 by default. */
export const pageParam = positiveInt(m.pageInvalid, 100_000, 1);

/** A page size from 1 to `max`, `fallback` when absent. */
export const pageSizeParam = (max: number, fallback: number) =>
  positiveInt(format(m.pageSizeRange, { max }), max, fallback);
