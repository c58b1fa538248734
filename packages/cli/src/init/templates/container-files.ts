/** `Dockerfile` and `.dockerignore`: a two-stage build, the operator as a numeric non-root user. */
import type { ScaffoldNames } from '../scaffold-names.js';

export function dockerfile(n: ScaffoldNames): string {
  return `# docker build -t ${n.name}:latest .   (then: npx kubeloop manifests --image ${n.name}:latest | kubectl apply -f -)
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Numeric, so that the Deployment's runAsNonRoot can check it.
USER 1000
EXPOSE 9090
CMD ["node", "dist/main.js"]
`;
}

export function dockerignore(): string {
  return ['node_modules', 'dist', '.kubeloop', '*.kubeconfig', ''].join('\n');
}

export function gitignore(): string {
  return ['node_modules/', 'dist/', '.kubeloop/', '*.kubeconfig', ''].join('\n');
}
