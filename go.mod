module github.com/ai-ecoverse/slicc-browsers

go 1.19
