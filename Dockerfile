# The API and the worker: one image, two commands (see docker-compose.yml).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
USER node
# tsx runs the TypeScript sources directly; the worker bundles workflows/ at start.
CMD ["node", "--enable-source-maps", "--import", "tsx", "src/main/api.ts"]
