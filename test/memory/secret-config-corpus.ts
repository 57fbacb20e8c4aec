/**
 * Config files with a fake secret under a key whose name says secret and a value with no provider prefix (issue
 * 10, eighth trial, M2). `key` is the name the scan reports; `secret` must be gone after redaction. Values carry
 * FAKE or fake (or `RkFLR`, FAKE in base64) for grepping; bare words are lower case, as a real one often is.
 */
export const CONFIG_SECRET_CORPUS: Array<{ name: string; path: string; text: string; key: string; secret: string }> = [
  {
    name: 'JSON nested db_password',
    path: 'config/settings.json',
    text: '{\n  "database": {\n    "host": "db.internal",\n    "port": 5432,\n    "db_password": "FAKETr0ub4dor&3x"\n  },\n  "logLevel": "info"\n}\n',
    key: 'db_password',
    secret: 'FAKETr0ub4dor&3x',
  },
  { name: 'YAML api_secret, a bare word', path: 'config/app.yaml', text: 'server:\n  port: 8080\n  api_secret: fakehunter-prod\n  workers: 4\n', key: 'api_secret', secret: 'fakehunter-prod' },
  { name: 'YAML nested pass', path: 'config/mail.yml', text: 'smtp:\n  host: smtp.example.com\n  auth:\n    user: mailer\n    pass: fakemailerpassword\n', key: 'pass', secret: 'fakemailerpassword' },
  { name: 'INI password, spaced', path: 'config/database.ini', text: '; production database\n[postgres]\nhost = db.internal\nport = 5432\npassword = fakesecretpass\n', key: 'password', secret: 'fakesecretpass' },
  { name: 'cfg client_secret with a colon', path: 'deploy/oauth.cfg', text: '[oauth]\nclient_id: web-app\nclient_secret: fakeclientsecretvalue\n', key: 'client_secret', secret: 'fakeclientsecretvalue' },
  { name: 'TOML token', path: 'config/service.toml', text: '[service]\nname = "billing"\ntoken = "faketomltoken"\n', key: 'token', secret: 'faketomltoken' },
  {
    name: '.env webhook secret with a short prefix',
    path: '.env',
    text: '# local overrides\nNODE_ENV=production\nSTRIPE_WEBHOOK_SECRET=whsec_FAKExyz\nAUTH_TOKEN=FAKEabc123def # from the dashboard\n',
    key: 'STRIPE_WEBHOOK_SECRET',
    secret: 'whsec_FAKExyz',
  },
  {
    name: 'Java properties, spaced',
    path: 'src/main/resources/application.properties',
    text: 'spring.datasource.url=jdbc:postgresql://db.internal:5432/app\nspring.datasource.username=app\nspring.datasource.password = fakespringsecret\n',
    key: 'spring.datasource.password',
    secret: 'fakespringsecret',
  },
  {
    name: 'GCP service-account private_key_id',
    path: 'config/gcp-sa.json',
    text: '{\n  "type": "service_account",\n  "project_id": "demo-project",\n  "private_key_id": "FAKE3c2b1a09f8e7d6c5b4a3928170f6e5d4c3b2a1",\n  "client_email": "svc@demo-project.iam.gserviceaccount.com"\n}\n',
    key: 'private_key_id',
    secret: 'FAKE3c2b1a09f8e7d6c5b4a3928170f6e5d4c3b2a1',
  },
  { name: '.npmrc _auth (base64 user:password)', path: '.npmrc', text: 'registry=https://registry.npmjs.org/\n_auth=RkFLRXVzZXI6cGFzc3dvcmQ=\nalways-auth=true\n', key: '_auth', secret: 'RkFLRXVzZXI6cGFzc3dvcmQ=' },
  { name: '.npmrc _authToken', path: 'web/.npmrc', text: '@acme:registry=https://npm.acme.example/\n//npm.acme.example/:_authToken=fakeacmeregistrytoken\n', key: '_authToken', secret: 'fakeacmeregistrytoken' },
  { name: '.netrc over lines', path: '.netrc', text: 'machine api.example.com\n  login deploy-bot\n  password fakenetrcword\n', key: 'password', secret: 'fakenetrcword' },
  { name: '.pypirc password', path: '.pypirc', text: '[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = fakepypipassword\n', key: 'password', secret: 'fakepypipassword' },
  { name: 'compose environment list', path: 'deploy/compose.prod.yml', text: 'services:\n  api:\n    image: acme/api:1.4\n    environment:\n      - JWT_SECRET=fakejwtsecretvalue\n', key: 'JWT_SECRET', secret: 'fakejwtsecretvalue' },
];

/** A real-looking project's config files that hold no secret: placeholders, references, types, local dev defaults. */
export const NOT_SECRET_CONFIGS: Array<{ path: string; text: string }> = [
  {
    path: 'package.json',
    text: '{\n  "name": "acme-api",\n  "version": "1.4.0",\n  "scripts": { "start": "node dist/main.js", "test": "vitest" },\n  "dependencies": { "js-tokens": "^9.0.0", "jsonwebtoken": "^9.0.2" },\n  "config": { "tokenHeader": "Authorization", "max_tokens": "4096" }\n}\n',
  },
  {
    path: 'docker-compose.yml',
    text: 'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: postgres\n      POSTGRES_PASSWORD: postgres\n      POSTGRES_DB: app\n  mysql:\n    image: mysql:8\n    environment:\n      - MYSQL_ROOT_PASSWORD=root\n      - MYSQL_PASSWORD=password\n  cache:\n    image: redis:7\n    environment:\n      REDIS_PASSWORD: ""\n  api:\n    build: .\n    environment:\n      DATABASE_URL: postgres://postgres:postgres@db:5432/app\n      API_TOKEN: ${API_TOKEN}\n      SESSION_SECRET: ${SESSION_SECRET:-dev}\n      RABBITMQ_DEFAULT_PASS: guest\n',
  },
  {
    path: '.env.example',
    text: '# copy to .env and fill in\nAPI_KEY=<your-api-key>\nSECRET_KEY=changeme\nSTRIPE_SECRET_KEY=xxxxxxxxxxxx\nDB_PASSWORD=\nGITHUB_TOKEN=your-github-token-here\nAUTH_TOKEN=***\n',
  },
  {
    path: 'config/auth.yaml',
    text: 'auth:\n  enabled: true\n  password_min_length: 12\n  token_ttl: 3600\n  key_file: /etc/acme/tls.key\n  secret: "{{ vault_app_secret }}"\n  password: ${DB_PASSWORD}\nlimits:\n  max_tokens: 4096\n',
  },
  { path: 'openapi/schema.yaml', text: 'components:\n  schemas:\n    Login:\n      properties:\n        password:\n          type: string\n        token: string\n' },
  { path: 'config/logging.ini', text: '[loggers]\nkeys = root,auth\n\n[handler_file]\nargs = (\'%(logdir)s/app.log\',)\npassword = %(db_password)s\n' },
  // Shapes found in real trees (an SDK's service data): pagination cursors under `*_token` keys, a camel-case
  // field name as the value, a format string's `{field}`.
  {
    path: 'data/paginators-1.json',
    text: '{\n  "pagination": {\n    "ListTables": {\n      "input_token": "ExclusiveStartTableName",\n      "output_token": "nextToken",\n      "limit_key": "Limit"\n    }\n  }\n}\n',
  },
  { path: 'deploy/connection.yaml', text: 'params:\n  - api_field: connection.githubConfig.oauthTokenSecretVersion\n    oauth_token_secret_version: "{__relative_name__}"\n    client_secret: clientSecret\n' },
  { path: 'tsconfig.json', text: '{\n  "compilerOptions": { "strict": true, "outDir": "dist" },\n  "include": ["src"]\n}\n' },
];

/**
 * Secrets with no token shape in files that are not config by name, or not under a secret-named key (tenth
 * new-user trial, H3: these passed silently). `key`: the label the report gives (`secret-key-files.ts`).
 */
export const SOURCE_SECRET_CORPUS: Array<{ name: string; path: string; text: string; key: string; secret: string }> = [
  { name: '.env DATABASE_URL with a password', path: 'services/billing/.env', text: 'PORT=8080\nDATABASE_URL=postgres://billing:fakeDbPw42x@db.prod.internal:5432/billing\n', key: "a URL's password", secret: 'fakeDbPw42x' },
  { name: 'Terraform client_secret', path: 'infra/main.tf', text: 'provider "azurerm" {\n  features {}\n  client_id     = "00000000-0000-0000-0000-000000000000"\n  client_secret = "fakeTfSecret7Q"\n}\n', key: 'a secret value', secret: 'fakeTfSecret7Q' },
  { name: 'Go constant', path: 'internal/payments/keys.go', text: 'package payments\n\nconst apiSecret = "fake9goValue-x7"\n', key: 'a secret value', secret: 'fake9goValue-x7' },
  { name: 'Rust typed constant', path: 'src/config.rs', text: 'pub const API_KEY: &str = "fakeRsKey3Wq";\n', key: 'a secret value', secret: 'fakeRsKey3Wq' },
  { name: 'prose note', path: 'docs/ops-notes.md', text: '# Ops\n\nThe staging password is fakeStaging88x, rotate it monthly.\n', key: 'a password', secret: 'fakeStaging88x' },
  { name: 'German prose note', path: 'docs/betrieb.md', text: 'Das Passwort für den Server lautet fakeSonne77q.\n', key: 'a password', secret: 'fakeSonne77q' },
  // Eleventh trial: kept in the workspace snapshot and not reported.
  { name: 'German prose, another noun', path: 'docs/staging.md', text: 'Der Zugang zum Staging lautet fakeZug4Qx9.\n', key: 'a secret value', secret: 'fakeZug4Qx9' },
  { name: 'login pair in notes', path: 'NOTES.md', text: '## Staging\n\n- admin login: admin / fakeAdm8Vx2\n', key: 'a password', secret: 'fakeAdm8Vx2' },
  { name: 'PowerShell secure string', path: 'deploy/setup.ps1', text: "$pw = ConvertTo-SecureString 'fakePs5Hq8' -AsPlainText -Force\nNew-LocalUser svc -Password $pw\n", key: 'a password', secret: 'fakePs5Hq8' },
  { name: 'SQL IDENTIFIED BY', path: 'db/init.sql', text: "CREATE USER 'app'@'%' IDENTIFIED BY 'fakeSql7Zr';\nGRANT ALL ON app.* TO 'app'@'%';\n", key: 'a password', secret: 'fakeSql7Zr' },
];

/** Code and text with secret words and no secret: types, calls, local dev URLs, prose about passwords. */
export const NOT_SECRET_SOURCES: Array<{ path: string; text: string }> = [
  { path: 'src/auth/login.ts', text: 'export interface Login {\n  password: string;\n  token?: string;\n}\nexport async function login(user: string, password: string) {\n  const token = await getToken(user, password);\n  return { token };\n}\n' },
  { path: 'internal/auth/auth.go', text: 'package auth\n\nfunc Login(user, password string) (token string, err error) {\n\treturn "", nil\n}\n' },
  { path: 'Makefile', text: 'DEV_DB := postgres://postgres:postgres@localhost:5432/dev\n\ntest:\n\tDATABASE_URL=$(DEV_DB) go test ./...\n' },
  { path: 'README.md', text: '# acme-api\n\nThe password is required on first login; the API key is read from `$ACME_API_KEY`.\n' },
  { path: 'docs/access.md', text: 'Der Zugang zum Server ist gesperrt.\nLogin: admin / admin on a fresh install; credentials: ~/.aws/credentials\n' },
  { path: 'db/users.sql', text: "CREATE USER app IDENTIFIED BY :'app_password';\nALTER USER app IDENTIFIED WITH caching_sha2_password;\n" },
  { path: 'deploy/creds.ps1', text: '$pw = ConvertTo-SecureString $env:SVC_PW -AsPlainText -Force\n' },
];
