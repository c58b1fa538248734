/** `tsconfig.json`: strict, ESM, NodeNext. */
export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      sourceMap: true,
      rootDir: 'src',
      outDir: 'dist',
      types: ['node'],
    },
    include: ['src'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
