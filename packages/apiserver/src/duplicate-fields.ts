/**
 * Keys set twice in one JSON object of a request body. `JSON.parse` keeps the last value
 * silently; kube-apiserver's decoder reports each as `duplicate field "spec.a"`: a strict decoding
 * error under `fieldValidation=Strict` (400), a `Warning` header otherwise (see
 * `object-service.ts`, which reports them with unknown fields, in one place).
 *
 * The scan runs on text `JSON.parse` has already accepted, so it only tracks nesting and keys.
 */

interface ObjectFrame {
  readonly kind: 'object';
  readonly path: string;
  readonly keys: Set<string>;
  key: string | undefined;
  expectingKey: boolean;
}

interface ArrayFrame {
  readonly kind: 'array';
  readonly path: string;
  index: number;
}

function childPath(frame: ObjectFrame | ArrayFrame | undefined): string {
  if (!frame) return '';
  if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
  return frame.path ? `${frame.path}.${frame.key ?? ''}` : (frame.key ?? '');
}

/** The dotted paths of duplicated keys (`spec.a`, `spec.containers[0].name`), in the order found. */
export function duplicateFieldPaths(text: string): string[] {
  const duplicates: string[] = [];
  const stack: (ObjectFrame | ArrayFrame)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.kind === 'object' && top.expectingKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) duplicates.push(top.path ? `${top.path}.${key}` : key);
        top.keys.add(key);
        top.key = key;
        top.expectingKey = false;
      }
      i = end;
    } else if (c === '{') {
      stack.push({ kind: 'object', path: childPath(top), keys: new Set(), key: undefined, expectingKey: true });
    } else if (c === '[') {
      stack.push({ kind: 'array', path: childPath(top), index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      if (top?.kind === 'object') top.expectingKey = true;
      else if (top?.kind === 'array') top.index++;
    }
  }
  return duplicates;
}
