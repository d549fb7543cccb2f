// placeholder while scaffolding
