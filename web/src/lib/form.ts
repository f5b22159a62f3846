/** Glue between the contracts' zod schemas, server field errors and antd forms. */
import type { FormInstance, FormRule } from 'antd';
import type { ApiError } from '../api/client';

/** The part of a zod schema a form rule needs. */
interface Checkable {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: { message: string }[] } };
}

/** An antd rule that checks a value with a contracts schema and shows its first message. */
export function schemaRule(schema: Checkable): FormRule {
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(value ?? '');
      if (!result.success) throw new Error(result.error.issues[0]?.message);
    },
  };
}

/**
 * Puts the server's per-field messages under the form's fields of those names.
 * Returns true when a field took a message, so the caller can skip a general notice.
 */
export function applyFieldErrors(
  form: FormInstance,
  error: ApiError,
  fieldNames: readonly string[],
): boolean {
  const fields = Object.entries(error.fieldErrors)
    .filter(([name]) => fieldNames.includes(name))
    .map(([name, message]) => ({ name, errors: [message] }));
  form.setFields(fields);
  return fields.length > 0;
}

/** A text field's character counter as the spec writes it, '12/500', flagged past the limit without cutting. */
export function characterCounter(max: number) {
  return { max, show: ({ count }: { count: number }) => `${count}/${max}` };
}
