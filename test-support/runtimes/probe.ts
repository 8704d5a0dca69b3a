import * as m from '@hermes-mcp/core';
console.log(Object.keys(m).length, Object.keys(m).slice(0, 80).join(','));
