/**
 * Selectors are checked where an informer is made: a malformed one is a programming error that no
 * retry can fix, so it throws there, with the parser's message, instead of failing every list for ever.
 */
import { FieldSelector, LabelSelector, SelectorError } from '@kubeloop/resource';

/** The selectors of an informer, as given. */
export interface InformerSelectors {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

/**
 * Parses both selectors (field names are the server's to judge: any is accepted here).
 * @throws SelectorError naming the informer's kind, the option and the offending token.
 */
export function checkSelectors(kind: string, selectors: InformerSelectors): void {
  const { labelSelector, fieldSelector } = selectors;
  try {
    if (labelSelector) LabelSelector.parse(labelSelector);
  } catch (error) {
    throw withContext(error, `labelSelector of the ${kind} informer`);
  }
  try {
    if (fieldSelector) FieldSelector.parse(fieldSelector, { allowedFields: 'any' });
  } catch (error) {
    throw withContext(error, `fieldSelector of the ${kind} informer`);
  }
}

function withContext(error: unknown, where: string): unknown {
  if (!(error instanceof SelectorError)) return error;
  return new SelectorError(`${where}: ${error.message}`, error.selector, error.token);
}
