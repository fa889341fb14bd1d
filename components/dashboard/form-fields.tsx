"use client";

import { createContext, useActionState, useContext, useEffect, useRef, useState, type ReactNode, type SubmitEvent } from "react";
import { useFormStatus } from "react-dom";
import { formatBytes } from "@/lib/format";
import { buttonPrimary, focusRing, inputBase } from "@/components/ui/styles";
import { EMPTY_FORM, FILES_KEPT_FIELD, FILES_STORED_VALUE, type FormState } from "./form-state";

/**
 * Form controls for the dashboard's server-action forms. The form keeps the action's last answer in context, so each
 * field shows its own problems (linked with aria-describedby) and keeps what the seller typed after a refusal.
 * Without JavaScript the same forms post normally and the server renders the same answer.
 */

type Action = (state: FormState, formData: FormData) => Promise<FormState>;

const FormContext = createContext<{ state: FormState; prefix: string; labels: Readonly<Record<string, string>> }>({
  state: EMPTY_FORM,
  prefix: "f",
  labels: {},
});

export function ActionForm({
  action,
  prefix,
  children,
  className,
  label,
  labels,
  maxBodyBytes,
}: {
  action: Action;
  /** Makes field ids unique on the page: `${prefix}-${name}`. */
  prefix: string;
  children: ReactNode;
  className?: string;
  /** Accessible name of the form. */
  label?: string;
  /** Field name → its visible label, for the list of problems at the top. */
  labels: Readonly<Record<string, string>>;
  /**
   * The most a form post may carry (Next's server-action body limit). Files adding up to more are refused here,
   * before sending, with a message instead of a failed request.
   */
  maxBodyBytes?: number;
}) {
  const [serverState, formAction] = useActionState(action, EMPTY_FORM);
  const [local, setLocal] = useState<{ for: FormState; state: FormState } | null>(null);
  // A refusal found in the browser shows until the server answers again.
  const state = local && local.for === serverState ? local.state : serverState;
  const formRef = useRef<HTMLFormElement>(null);
  // The files chosen when the form was last sent, by field name.
  const sentFiles = useRef<Map<string, File[]> | null>(null);

  // React resets a form once its action has answered, which empties every file input. After a refusal the files the
  // seller chose are put back (the server stores them only once the whole form is valid), except in a field whose
  // own files were refused: those are for the seller to replace.
  useEffect(() => {
    const sent = sentFiles.current;
    sentFiles.current = null;
    if (!sent || !serverState.message || serverState.values[FILES_STORED_VALUE]) return;
    for (const input of formRef.current?.querySelectorAll<HTMLInputElement>('input[type="file"]') ?? []) {
      const files = sent.get(input.name);
      if (!files || files.length === 0 || serverState.errors[input.name]) continue;
      const kept = new DataTransfer();
      for (const file of files) kept.items.add(file);
      input.files = kept.files;
    }
  }, [serverState]);

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    const inputs = Array.from(event.currentTarget.querySelectorAll<HTMLInputElement>('input[type="file"]'));
    sentFiles.current = new Map(inputs.map((input) => [input.name, Array.from(input.files ?? [])]));
    // Tells the server this browser keeps the chosen files after a refusal (without JavaScript it cannot).
    const flag = event.currentTarget.elements.namedItem(FILES_KEPT_FIELD);
    if (flag instanceof HTMLInputElement) flag.value = "1";
    if (!maxBodyBytes) return;
    const total = inputs.reduce((sum, input) => sum + Array.from(input.files ?? []).reduce((s, f) => s + f.size, 0), 0);
    if (total <= maxBodyBytes) return;
    event.preventDefault();
    const errors: FormState["errors"] = {};
    for (const input of inputs) {
      if (input.files && input.files.length > 0)
        errors[input.name] = [
          `Together the chosen files are ${formatBytes(total)}; one save can send at most ${formatBytes(maxBodyBytes)}. Save with fewer files, then add the rest.`,
        ];
    }
    // Same values as before: the fields keep what the seller typed, since nothing was sent.
    setLocal({ for: serverState, state: { message: "The files are too large to send in one save.", errors, values: serverState.values } });
  };

  return (
    <FormContext value={{ state, prefix, labels }}>
      <form ref={formRef} action={formAction} onSubmit={onSubmit} className={className} aria-label={label} noValidate>
        <input type="hidden" name={FILES_KEPT_FIELD} defaultValue="" />
        <FormProblems />
        {children}
      </form>
    </FormContext>
  );
}

function fieldId(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

function useField(name: string) {
  const { state, prefix } = useContext(FormContext);
  const id = fieldId(prefix, name);
  const errors = state.errors[name] ?? [];
  return { id, errors, errorId: `${id}-error`, hintId: `${id}-hint`, value: state.values[name], submitted: Object.keys(state.values).length > 0 };
}

function describedBy(...ids: Array<string | false | undefined>): string | undefined {
  const list = ids.filter(Boolean);
  return list.length ? list.join(" ") : undefined;
}

/** What ties a control to its hint and its errors, for assistive technology. */
function ariaFor(f: ReturnType<typeof useField>, hint: unknown) {
  const invalid = f.errors.length > 0;
  return { "aria-invalid": invalid || undefined, "aria-describedby": describedBy(hint ? f.hintId : undefined, invalid && f.errorId) };
}

/** The summary at the top of a refused form: focused, announced, and a link to each field with a problem. */
function FormProblems() {
  const { state, prefix, labels } = useContext(FormContext);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (state.message) ref.current?.focus();
  }, [state]);
  if (!state.message) return null;
  // In the order the fields appear (the order of `labels`), not the order the server found the problems.
  const order = Object.keys(labels);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const fields = Object.entries(state.errors)
    .filter(([name]) => name !== "_form")
    .sort(([a], [b]) => rank(a) - rank(b));
  return (
    <div
      ref={ref}
      id={`${prefix}-problems`}
      role="alert"
      tabIndex={-1}
      className="mb-6 rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700"
    >
      <p className="font-semibold">{state.message}</p>
      {state.link ? (
        <p className="mt-2">
          <a href={state.link.href} className={`rounded-sm font-semibold underline underline-offset-2 ${focusRing}`}>
            {state.link.label}
          </a>
        </p>
      ) : null}
      {fields.length > 0 ? (
        <ul className="mt-2 list-disc space-y-1 pl-5">
          {fields.map(([name, messages]) => (
            <li key={name}>
              <a href={`#${fieldId(prefix, name)}`} className={`rounded-sm underline underline-offset-2 ${focusRing}`}>
                {labels[name] ?? name.replace(/_/g, " ")}
              </a>
              : {messages.join(" ")}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function FieldError({ id, errors }: { id: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <p id={id} className="mt-1.5 flex gap-1.5 text-sm font-medium text-red-700">
      <svg viewBox="0 0 20 20" aria-hidden="true" className="mt-0.5 size-4 shrink-0 fill-current">
        <path
          fillRule="evenodd"
          d="M18 10a8 8 0 1 1-16 0 8 8 0 0 1 16 0Zm-8-5a.75.75 0 0 1 .75.75v4.5a.75.75 0 0 1-1.5 0v-4.5A.75.75 0 0 1 10 5Zm0 10a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
          clipRule="evenodd"
        />
      </svg>
      <span>{errors.join(" ")}</span>
    </p>
  );
}

function Hint({ id, children }: { id: string; children?: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} className="mt-1.5 text-sm text-slate-600">
      {children}
    </p>
  );
}

const labelClass = "block text-sm font-medium text-slate-900";
const invalidInput = "border-red-600 focus-visible:border-red-600";

function OptionalTag({ optional }: { optional?: boolean }) {
  return optional ? <span className="ml-1 font-normal text-slate-600">(optional)</span> : null;
}

export function TextField({
  name,
  label,
  defaultValue = "",
  hint,
  type = "text",
  optional,
  required,
  prefixText,
  className,
  ...rest
}: {
  name: string;
  label: string;
  defaultValue?: string;
  hint?: ReactNode;
  type?: "text" | "email" | "url" | "number";
  optional?: boolean;
  required?: boolean;
  /** Shown inside the input on the left, e.g. "$". */
  prefixText?: string;
  className?: string;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: "text" | "decimal" | "numeric" | "email" | "url";
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number | "any";
  spellCheck?: boolean;
}) {
  const f = useField(name);
  const value = typeof f.value === "string" ? f.value : defaultValue;
  return (
    <div className={className}>
      <label htmlFor={f.id} className={labelClass}>
        {label}
        <OptionalTag optional={optional} />
      </label>
      <div className="relative mt-1.5">
        {prefixText ? (
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm text-slate-600">
            {prefixText}
          </span>
        ) : null}
        <input
          id={f.id}
          name={name}
          type={type}
          defaultValue={value}
          required={required}
          {...ariaFor(f, hint)}
          className={`${inputBase} ${prefixText ? "pl-7" : ""} ${f.errors.length ? invalidInput : ""}`}
          {...rest}
        />
      </div>
      <Hint id={f.hintId}>{hint}</Hint>
      <FieldError id={f.errorId} errors={f.errors} />
    </div>
  );
}

export function TextAreaField({
  name,
  label,
  defaultValue = "",
  hint,
  optional,
  required,
  rows = 4,
  maxLength,
  className,
  placeholder,
}: {
  name: string;
  label: string;
  defaultValue?: string;
  hint?: ReactNode;
  optional?: boolean;
  required?: boolean;
  rows?: number;
  maxLength?: number;
  className?: string;
  placeholder?: string;
}) {
  const f = useField(name);
  const value = typeof f.value === "string" ? f.value : defaultValue;
  return (
    <div className={className}>
      <label htmlFor={f.id} className={labelClass}>
        {label}
        <OptionalTag optional={optional} />
      </label>
      <textarea
        id={f.id}
        name={name}
        rows={rows}
        defaultValue={value}
        required={required}
        maxLength={maxLength}
        placeholder={placeholder}
        {...ariaFor(f, hint)}
        className={`${inputBase} mt-1.5 ${f.errors.length ? invalidInput : ""}`}
      />
      <Hint id={f.hintId}>{hint}</Hint>
      <FieldError id={f.errorId} errors={f.errors} />
    </div>
  );
}

export function SelectField({
  name,
  label,
  options,
  defaultValue = "",
  hint,
  placeholder,
  required,
  className,
}: {
  name: string;
  label: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  defaultValue?: string;
  hint?: ReactNode;
  /** A first, empty choice ("Choose…"). */
  placeholder?: string;
  required?: boolean;
  className?: string;
}) {
  const f = useField(name);
  const value = typeof f.value === "string" ? f.value : defaultValue;
  return (
    <div className={className}>
      <label htmlFor={f.id} className={labelClass}>
        {label}
      </label>
      {/* Keyed by the value to show: after an action React resets the form, and a select goes back to the option it
          was first rendered with, not to a changed defaultValue; a new element starts from the value sent. */}
      <select
        key={value}
        id={f.id}
        name={name}
        defaultValue={value}
        required={required}
        {...ariaFor(f, hint)}
        className={`${inputBase} mt-1.5 pr-8 ${f.errors.length ? invalidInput : ""}`}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Hint id={f.hintId}>{hint}</Hint>
      <FieldError id={f.errorId} errors={f.errors} />
    </div>
  );
}

const checkClass = `size-4 shrink-0 rounded border-slate-400 accent-indigo-600 ${focusRing}`;

export function CheckboxField({
  name,
  label,
  defaultChecked = false,
  hint,
}: {
  name: string;
  label: string;
  defaultChecked?: boolean;
  hint?: ReactNode;
}) {
  const f = useField(name);
  const checked = f.submitted ? f.value === "on" : defaultChecked;
  return (
    <div>
      <div className="flex items-start gap-3">
        <input id={f.id} name={name} type="checkbox" defaultChecked={checked} {...ariaFor(f, hint)} className={`mt-0.5 ${checkClass}`} />
        <label htmlFor={f.id} className="text-sm font-medium text-slate-900">
          {label}
        </label>
      </div>
      <div className="pl-7">
        <Hint id={f.hintId}>{hint}</Hint>
        <FieldError id={f.errorId} errors={f.errors} />
      </div>
    </div>
  );
}

/** Checkboxes or radio buttons in a fieldset; the legend names the group, errors belong to the group. */
export function ChoiceGroup({
  name,
  legend,
  options,
  defaultValue,
  hint,
  type,
  columns = "sm:grid-cols-3",
}: {
  name: string;
  legend: string;
  options: ReadonlyArray<{ value: string; label: string; description?: string }>;
  defaultValue: string | readonly string[];
  hint?: ReactNode;
  type: "checkbox" | "radio";
  columns?: string;
}) {
  const f = useField(name);
  const fromState = f.submitted ? f.value : undefined;
  const chosen = new Set<string>(
    fromState === undefined
      ? typeof defaultValue === "string"
        ? [defaultValue]
        : defaultValue
      : typeof fromState === "string"
        ? [fromState]
        : fromState,
  );
  return (
    <fieldset
      id={f.id}
      tabIndex={-1}
      aria-describedby={describedBy(hint ? f.hintId : undefined, f.errors.length > 0 && f.errorId)}
      className="min-w-0"
    >
      <legend className={labelClass}>{legend}</legend>
      <Hint id={f.hintId}>{hint}</Hint>
      <div className={`mt-2 grid gap-2 ${columns}`}>
        {options.map((o) => {
          const id = `${f.id}-${o.value}`;
          return (
            <label
              key={o.value}
              htmlFor={id}
              className={`flex cursor-pointer items-start gap-3 rounded-lg border bg-white px-3 py-2.5 text-sm shadow-sm has-[:checked]:border-indigo-600 has-[:checked]:bg-indigo-50 ${
                f.errors.length ? "border-red-600" : "border-slate-300"
              }`}
            >
              <input id={id} type={type} name={name} value={o.value} defaultChecked={chosen.has(o.value)} className={`mt-0.5 ${checkClass}`} />
              <span>
                <span className="font-medium text-slate-900">{o.label}</span>
                {o.description ? <span className="block text-slate-600">{o.description}</span> : null}
              </span>
            </label>
          );
        })}
      </div>
      <FieldError id={f.errorId} errors={f.errors} />
    </fieldset>
  );
}

export function FileField({
  name,
  label,
  accept,
  multiple,
  hint,
  optional,
}: {
  name: string;
  label: string;
  accept: string;
  multiple?: boolean;
  hint?: ReactNode;
  optional?: boolean;
}) {
  const f = useField(name);
  return (
    <div>
      <label htmlFor={f.id} className={labelClass}>
        {label}
        <OptionalTag optional={optional} />
      </label>
      <input
        id={f.id}
        name={name}
        type="file"
        accept={accept}
        multiple={multiple}
        {...ariaFor(f, hint)}
        className={`mt-1.5 block w-full rounded-lg text-sm text-slate-700 file:mr-3 file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold file:text-slate-800 file:shadow-sm hover:file:bg-slate-50 ${focusRing}`}
      />
      <Hint id={f.hintId}>{hint}</Hint>
      <FieldError id={f.errorId} errors={f.errors} />
    </div>
  );
}

export function SubmitButton({
  children,
  pendingLabel,
  className = buttonPrimary,
}: {
  children: ReactNode;
  pendingLabel: string;
  className?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={className}>
      {pending ? pendingLabel : children}
    </button>
  );
}
