import { badInput } from '@voxgate/kit';
import type { z } from 'zod';

/** Parses with zod and turns the first problem into a 400 naming the field. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message }));
  const first = fields[0];
  throw badInput(first ? `${first.field || 'input'}: ${first.message}` : 'Invalid input', { fields });
}
