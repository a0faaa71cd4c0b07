// Forms: a labelled field with its error beside it and the value the admin typed kept, a summary
// of the errors at the top, and the submit button. A form posts to the console's own origin; an
// upload form (`upload`) is also driven by the upload-progress script (assets/upload.js), which
// shows a progress bar and, on a failure, the reason, and keeps the form as it is. Without
// JavaScript the same form posts as it is.
import type { Child } from "hono/jsx";
import { readBounded } from "../../http/bounded-body";
import { AppError, type FieldError } from "../../lib/problems";
import type { ConsoleContext } from "./respond";

/** Field name → its error message (the contract's message, README "Console"). */
export type FieldErrors = Record<string, string>;
/** Field name → what was typed. */
export type FormValues = Record<string, string>;

/** A console form's body (not an upload) is small: at most this many bytes. */
export const MAX_FORM_BYTES = 64 * 1024;

/** The fields of an `application/x-www-form-urlencoded` POST, each the first value of its name. */
export async function readForm(c: ConsoleContext): Promise<FormValues> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return {};
  const text = await readBounded(c.req.raw, MAX_FORM_BYTES);
  const values: FormValues = {};
  for (const [name, value] of new URLSearchParams(text)) if (!(name in values)) values[name] = value;
  return values;
}

/**
 * A service's VALIDATION_FAILED as field errors: each error's path (the contract's field name,
 * e.g. `versionCode`) names the field; one without a known field goes under "" (the summary).
 */
export function fieldErrorsOf(error: AppError, fields: readonly string[]): FieldErrors {
  const errors: FieldErrors = {};
  const list: FieldError[] = error.errors?.length ? error.errors : [{ path: "", message: error.message }];
  for (const { path, message } of list) {
    const field = fields.includes(path) ? path : "";
    errors[field] ??= message;
  }
  return errors;
}

/** Runs `change`; a VALIDATION_FAILED becomes field errors, anything else is thrown on. */
export async function withFieldErrors<T>(
  fields: readonly string[],
  change: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; errors: FieldErrors }> {
  try {
    return { ok: true, value: await change() };
  } catch (error) {
    if (error instanceof AppError && error.code === "VALIDATION_FAILED") {
      return { ok: false, errors: fieldErrorsOf(error, fields) };
    }
    throw error;
  }
}

const fieldId = (name: string) => `field-${name}`;
const errorId = (name: string) => `error-${name}`;

interface FieldProps {
  name: string;
  label: string;
  value?: string | undefined;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
}

function described(props: FieldProps): string | undefined {
  const ids = [props.hint ? `hint-${props.name}` : "", props.error ? errorId(props.name) : ""].filter(
    Boolean,
  );
  return ids.length > 0 ? ids.join(" ") : undefined;
}

function FieldFrame(props: FieldProps & { children: Child }) {
  return (
    <div class={props.error ? "field field-invalid" : "field"}>
      <label for={fieldId(props.name)}>
        {props.label}
        {props.required && <span class="required"> (required)</span>}
      </label>
      {props.hint && (
        <p class="hint" id={`hint-${props.name}`}>
          {props.hint}
        </p>
      )}
      {props.children}
      {props.error && (
        <p class="field-error" id={errorId(props.name)}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** `<input>` of `type` (text, email, password, number, date, datetime-local, search). */
export function Field(
  props: FieldProps & {
    type?: string;
    autocomplete?: string;
    maxlength?: number;
    min?: number;
    max?: number;
    inputmode?: "numeric" | "decimal" | "email" | "text";
  },
) {
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.name)}
        name={props.name}
        type={props.type ?? "text"}
        value={props.type === "password" ? undefined : (props.value ?? "")}
        required={props.required}
        autocomplete={props.autocomplete}
        maxlength={props.maxlength}
        min={props.min}
        max={props.max}
        inputmode={props.inputmode}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={described(props)}
      />
    </FieldFrame>
  );
}

export function TextArea(props: FieldProps & { rows?: number; maxlength?: number }) {
  return (
    <FieldFrame {...props}>
      <textarea
        id={fieldId(props.name)}
        name={props.name}
        rows={props.rows ?? 4}
        required={props.required}
        maxlength={props.maxlength}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={described(props)}
      >
        {props.value ?? ""}
      </textarea>
    </FieldFrame>
  );
}

export function Select(props: FieldProps & { options: readonly { value: string; label: string }[] }) {
  return (
    <FieldFrame {...props}>
      <select
        id={fieldId(props.name)}
        name={props.name}
        required={props.required}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={described(props)}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** A file input; its value cannot be kept by a browser, so its hint says what it takes. */
export function FileField(props: FieldProps & { accept?: string }) {
  return (
    <FieldFrame {...props}>
      <input
        id={fieldId(props.name)}
        name={props.name}
        type="file"
        accept={props.accept}
        required={props.required}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={described(props)}
      />
    </FieldFrame>
  );
}

export function Checkbox(props: { name: string; label: string; checked?: boolean; value?: string }) {
  return (
    <div class="field field-check">
      <input
        id={fieldId(props.name)}
        name={props.name}
        type="checkbox"
        value={props.value ?? "on"}
        checked={props.checked}
      />
      <label for={fieldId(props.name)}>{props.label}</label>
    </div>
  );
}

/** The errors of a failed submission, at the top, each linking to its field. */
export function ErrorSummary(props: { errors: FieldErrors; labels: Record<string, string> }) {
  const entries = Object.entries(props.errors);
  if (entries.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">The form could not be saved</h2>
      <ul>
        {entries.map(([name, message]) => (
          <li>
            {name === "" ? (
              message
            ) : (
              <a href={`#${fieldId(name)}`}>{`${props.labels[name] ?? name}: ${message}`}</a>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A POST form. `upload`: multipart, driven by assets/upload.js (progress bar, failure shown in the
 * form's status line, the form kept).
 */
export function Form(props: {
  action: string;
  upload?: boolean;
  children: Child;
  class?: string;
  label?: string;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class}
      aria-label={props.label}
      enctype={props.upload ? "multipart/form-data" : undefined}
      data-upload={props.upload ? "" : undefined}
    >
      {props.children}
      {props.upload && (
        <div class="upload-progress">
          <progress max={100} value={0} hidden aria-label="Upload progress" />
          <p class="upload-status" role="status" aria-live="polite" />
        </div>
      )}
    </form>
  );
}

/** The form's submit button, named for what it does. */
export function Submit(props: { label: string; danger?: boolean }) {
  return (
    <button type="submit" class={props.danger ? "button danger" : "button"}>
      {props.label}
    </button>
  );
}
