/** The names the templates use, derived once from the answers. */
import { kebabCase, pascalCase } from '../project/names.js';
import type { InitAnswers } from './init-answers.js';

export interface ScaffoldNames extends InitAnswers {
  /** `website`: the file name of the kind's modules. */
  readonly kindFile: string;
  /** `website`: a variable holding one object. */
  readonly one: string;
  /** `websites`: a variable holding the kind's client. */
  readonly many: string;
  /** `WebsiteOperator`: the operator's factory is `create<Pascal>`. */
  readonly pascal: string;
  /** `example.com/cleanup`: the finalizer. */
  readonly finalizer: string;
}

export function scaffoldNames(answers: InitAnswers): ScaffoldNames {
  const one = answers.kind[0]!.toLowerCase() + answers.kind.slice(1);
  const many = one === answers.plural ? `${one}List` : answers.plural;
  return { ...answers, kindFile: kebabCase(answers.kind), one, many, pascal: pascalCase(answers.name), finalizer: `${answers.group}/cleanup` };
}
