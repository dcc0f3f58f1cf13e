// Placeholder entry; the server issue replaces it.
console.log('server skeleton');
