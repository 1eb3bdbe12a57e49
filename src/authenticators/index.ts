export { bundledCatalog, findAssetsFolder, loadCatalog, PROVIDERS_FILE, SECURITY_KEYS_FILE } from './bundled.js';
export {
  CatalogError,
  createCatalog,
  EMPTY_CATALOG,
  parseNameList,
  parseProviderList,
  type AuthenticatorCatalog,
  type CatalogEntry,
} from './catalog.js';
export { describeAuthenticator, type AuthenticatorDescription, type AuthenticatorFacts } from './describe.js';
