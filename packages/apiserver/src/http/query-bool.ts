/**
 * Boolean query parameters (`watch`, `allowWatchBookmarks`, `sendInitialEvents`,
 * `orphanDependents`, `force`) as kube-apiserver converts them (apimachinery's
 * `Convert_Slice_string_To_bool`): only `0` and `false` in any case are false; any other value,
 * the empty one included (`?watch=`), is true; nothing is refused. (The Python client sends `watch=True`.)
 */

/** A boolean query parameter: undefined when absent, else as kube-apiserver converts it. */
export function queryBool(params: URLSearchParams, name: string): boolean | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  return !(text === '0' || text.toLowerCase() === 'false');
}
