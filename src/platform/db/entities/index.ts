/** Every entity schema MikroORM knows; feature folders append theirs here. */
import { foundationEntities } from './foundation.js';
import { resourceEntities } from './resources.js';

export const allEntities = [...foundationEntities, ...resourceEntities];
