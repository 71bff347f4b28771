/**
 * The one way through the code, checked by `npm run deps` and by `npm test` (test/infra/run-tests.sh):
 *
 *   entry points and composition roots  src/{server,worker,cli,app,runtime}.ts, src/jobs/worker-thread.worker.ts
 *     -> transports   src/{rest,http,graphql,trpc,jobs,dashboard,embed}/, schema/, realtime/
 *     -> services     src/services/, src/context.ts (what every service call receives)
 *     -> core         db/, src/{ai,ingest,text,answering}/
 *   shared leaves     src/{config,errors,ids,logger,metrics,validation,repo-root,process-alive}.ts
 *
 * Each layer imports only the layers below it (transports go through the services, never to the
 * core directly), the leaves import only each other, and type-only imports count as much as value
 * imports: a type from above drags the layer above into every build and review. No import cycle is
 * allowed anywhere, type-only imports included. widget/ is a browser bundle of its own; bench/ may
 * import anything, test/ too, and nothing in the product imports either.
 */
const LEAF = '^src/(config|errors|ids|logger|metrics|validation|repo-root|process-alive)\\.ts$';
const ROOT = '^src/((server|worker|cli|app|runtime)\\.ts|jobs/worker-thread\\.worker\\.ts)$';
const TRANSPORT = '^(src/(rest|http|graphql|trpc|jobs|dashboard|embed)/|schema/|realtime/)';
const SERVICE = '^(src/services/|src/context\\.ts$)';
const CORE = '^(db/|src/(ai|ingest|text|answering)/)';
const PRODUCT = '^(src|db|schema|realtime|widget)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: break it by moving what both sides need into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'leaf-imports-leaves',
      severity: 'error',
      comment: 'The shared leaf modules are imported by every layer, so they import only each other.',
      from: { path: LEAF },
      to: { path: '^(src|db|schema|realtime|widget|bench|test)/', pathNot: LEAF },
    },
    {
      name: 'core-not-up',
      severity: 'error',
      comment: 'db/, ai, ingest, text and answering sit below the services: they never import services, transports or roots.',
      from: { path: CORE },
      to: { path: `${SERVICE}|${TRANSPORT}|${ROOT}` },
    },
    {
      name: 'services-not-up',
      severity: 'error',
      comment: 'Services never import a transport or a composition root (jobs are queued through src/services/jobs-port.ts).',
      from: { path: SERVICE },
      to: { path: `${TRANSPORT}|${ROOT}` },
    },
    {
      name: 'transports-through-services',
      severity: 'error',
      comment: 'A transport reaches db/, ai, ingest, text and answering only through a service.',
      from: { path: TRANSPORT, pathNot: ROOT },
      to: { path: CORE },
    },
    {
      name: 'roots-on-top',
      severity: 'error',
      comment: 'Only entry points and composition roots import a composition root.',
      from: { path: PRODUCT, pathNot: ROOT },
      to: { path: ROOT },
    },
    {
      name: 'widget-stands-alone',
      severity: 'error',
      comment: 'The widget is a browser bundle: it imports its own modules and npm packages, nothing of the server.',
      from: { path: '^widget/' },
      to: { path: '^(src|db|schema|realtime|bench|test)/' },
    },
    {
      name: 'nothing-imports-bench',
      severity: 'error',
      comment: 'Benchmarks may import anything; nothing imports them.',
      from: { pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'product-never-imports-test',
      severity: 'error',
      comment: 'Tests may import anything; the product never imports a test, helper or fake.',
      from: { pathNot: '^(test|bench)/' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the checker cannot resolve would escape every rule above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports are dependencies too (TypeScript erases them; the layering does not).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
